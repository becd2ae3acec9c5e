"""tradeleague: fair, reproducible, fully published paper-trading competitions.

Every portfolio is paper (virtual USD); nothing is ever sent to a market.
"""

from tradeleague.disclaimer import DISCLAIMER

__all__ = ["DISCLAIMER", "__version__"]

__version__ = "0.1.0"

"""The REST API of the scenario benchmark (FastAPI) and the service behind it.

`create_app` builds the app over a `ScenarioService`; ``tradeleague serve``
runs it with uvicorn. See `tradeleague.api.app` for the routes.
"""

from tradeleague.api.app import create_app
from tradeleague.api.service import ScenarioService, ServiceError

__all__ = ["ScenarioService", "ServiceError", "create_app"]

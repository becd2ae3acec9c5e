"""The public site's composition: the one module that joins the interfaces.

`create_site` builds the app ``tradeleague serve`` runs: the REST API, every
installed format's site and account parts from the registry, the accounts and
their pages (`account_pages`), the hosted MCP server, the shared pages and
metrics. ``api``, ``web`` and ``mcp`` never import one another; this package
imports them all, and no format's package.
"""

from tradeleague.api.account.settings import AccountSettings
from tradeleague.site.app import create_site
from tradeleague.site.serving import serve_site

__all__ = ["AccountSettings", "create_site", "serve_site"]

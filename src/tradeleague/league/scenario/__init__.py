"""The scenario benchmark's shell: its service, reads, routes and MCP tools."""

"""Alembic migrations of the store's schema, shipped inside the package.

``tradeleague.store.migrate.upgrade`` runs them programmatically; developers
write a new revision with
``alembic -c src/tradeleague/store/migrations/alembic.ini revision -m "..."``.
"""

"""Everything that talks to PostgreSQL: the embedded server, connections,
migrations, named queries and the `PostgresStore`."""

-- The catalog as the distribution check reads it (app/db/distribution.py): what a
-- PostgreSQL distributed by tenant (Citus) would have to accept. Only this schema's
-- objects; a partition is named with the table at the root of its tree.

-- name: catalog_tables --
SELECT c.relname AS table_name, r.relname AS root_name,
       a.attname IS NOT NULL AS has_user_id, COALESCE(a.attnotnull, false) AS user_id_not_null,
       format_type(a.atttypid, a.atttypmod) AS user_id_type
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class r ON r.oid = COALESCE(pg_partition_root(c.oid), c.oid)
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
ORDER BY c.relname;

-- name: catalog_unique_keys --
-- Every unique index (those behind PRIMARY KEY and UNIQUE constraints too) with its key
-- columns in order (an expression counts as a column that is not user_id).
SELECT c.relname AS table_name, r.relname AS root_name, i.relname AS index_name,
       ARRAY(SELECT COALESCE(a.attname, '(expression)')
             FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
             LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
             WHERE k.ord <= x.indnkeyatts ORDER BY k.ord)::text[] AS columns
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class c ON c.oid = x.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class r ON r.oid = COALESCE(pg_partition_root(c.oid), c.oid)
WHERE n.nspname = current_schema() AND x.indisunique AND c.relkind IN ('r', 'p')
ORDER BY c.relname, i.relname;

-- name: catalog_foreign_keys --
SELECT con.conname AS constraint_name, c.relname AS table_name, r.relname AS root_name,
       fr.relname AS ref_root_name,
       ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord)::text[] AS columns,
       ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
             ORDER BY k.ord)::text[] AS ref_columns
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class r ON r.oid = COALESCE(pg_partition_root(c.oid), c.oid)
JOIN pg_class fr ON fr.oid = COALESCE(pg_partition_root(con.confrelid), con.confrelid)
WHERE n.nspname = current_schema() AND con.contype = 'f'
ORDER BY c.relname, con.conname;

-- name: catalog_routines --
-- The SQL and PL/pgSQL functions of this schema (procrastinate's among them), with
-- their argument names, and the tables their triggers are on.
SELECT p.proname AS name, l.lanname AS language, p.prosrc AS body,
       COALESCE(p.proargnames, '{}')::text[] AS arg_names,
       p.prorettype = 'trigger'::regtype AS is_trigger,
       ARRAY(SELECT DISTINCT COALESCE(r.relname, c.relname)
             FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
             LEFT JOIN pg_class r ON r.oid = pg_partition_root(c.oid)
             WHERE t.tgfoid = p.oid AND NOT t.tgisinternal
             ORDER BY 1)::text[] AS trigger_tables
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
WHERE n.nspname = current_schema() AND l.lanname IN ('sql', 'plpgsql') AND p.prokind = 'f'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d  -- an extension's own functions
                  WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
ORDER BY p.proname, p.oid;

-- name: catalog_views --
-- Views and rewrite rules, by the SQL that defines them.
SELECT viewname AS name, definition FROM pg_views WHERE schemaname = current_schema()
UNION ALL
SELECT tablename || '.' || rulename, definition FROM pg_rules WHERE schemaname = current_schema()
ORDER BY 1;

package postgres

// WALByTableSQL sums, by table, what the current database wrote to the
// write-ahead log from the LSN $1 to the last flushed one (pg_walinspect,
// whose extension the caller creates): row writes (heap inserts, updates,
// deletes), records and bytes without full-page images (whose number
// depends on when checkpoints fell), an index's and a TOAST table's
// records counted for their table, the largest first. Other databases of
// the server write to the same log and are left out, so the figures are
// ones the machine's other load does not move. Columns: table, row
// writes, records, bytes.
const WALByTableSQL = `
	WITH rels AS (
		SELECT c.relfilenode::text AS node, coalesce(tt.relname, ic.relname, c.relname) AS tbl
		FROM pg_class c
		LEFT JOIN pg_index ix ON ix.indexrelid = c.oid
		LEFT JOIN pg_class ic ON ic.oid = ix.indrelid
		LEFT JOIN pg_class tt ON tt.reltoastrelid = coalesce(ic.oid, c.oid)
	), recs AS (
		SELECT r.resource_manager, r.record_type, r.record_length - r.fpi_length AS bytes,
		       (regexp_match(r.block_ref, 'rel \d+/(\d+)/(\d+)')) AS ref
		FROM pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn()) r
		WHERE r.block_ref IS NOT NULL
	)
	SELECT coalesce(rels.tbl, 'relfilenode ' || recs.ref[2]),
	       count(*) FILTER (WHERE recs.resource_manager IN ('Heap', 'Heap2')
	                        AND recs.record_type ~ '^(INSERT|MULTI_INSERT|UPDATE|HOT_UPDATE|DELETE)'),
	       count(*), sum(recs.bytes)
	FROM recs LEFT JOIN rels ON rels.node = recs.ref[2]
	WHERE recs.ref[1] = (SELECT oid::text FROM pg_database WHERE datname = current_database())
	GROUP BY 1 ORDER BY 4 DESC`

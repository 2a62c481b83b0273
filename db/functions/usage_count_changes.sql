-- GET /api/usage.php's counts (usage_sent, usage_priced: db/schema.ts), kept by three statement
-- triggers on messages made by migration 0017. This one, messages_usage_changes (AFTER UPDATE,
-- REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows): a record counts under its key as it
-- stands after the statement and no longer under its key before it, so a repeat that changes nothing
-- moves nothing (a redelivered status), and a change of category or of billable moves the record
-- from one count to the other. The deltas are summed per key and written in key order: two
-- statements writing the same keys take their row locks in the same order (no deadlock,
-- docs/decisions/035-lock-order.md), and a statement that changes no count writes nothing.
--
-- Why three functions and not one helper: a trigger's transition tables are seen only by the
-- function the trigger calls, and an INSERT trigger has no old rows, a DELETE trigger no new ones;
-- a shared helper would take the rows as a value (an array or JSON built per statement) on every
-- write of a record, the send path's hottest statement (bench/audience.ts).
CREATE OR REPLACE FUNCTION "usage_count_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- a purge or an erasure (src/privacy/) changes no figure: its transaction says so, and the counts stay where they were
	IF current_setting('outbound.counts_kept', true) = 'on' THEN
		RETURN NULL;
	END IF;
	INSERT INTO "usage_sent" ("workspace_id", "hour", "prefix", "messages")
	SELECT d.workspace_id, d.hour, d.prefix, sum(d.n)
	FROM (
		SELECT n.workspace_id, date_trunc('hour', n.created_at, 'UTC') AS hour, left(n.recipient, 3) AS prefix, 1 AS n FROM new_rows n WHERE n.wamid IS NOT NULL
		UNION ALL
		SELECT o.workspace_id, date_trunc('hour', o.created_at, 'UTC'), left(o.recipient, 3), -1 FROM old_rows o WHERE o.wamid IS NOT NULL
	) d
	GROUP BY 1, 2, 3 HAVING sum(d.n) <> 0 ORDER BY 1, 2, 3
	ON CONFLICT ("workspace_id", "hour", "prefix") DO UPDATE SET "messages" = "usage_sent"."messages" + excluded."messages";
	INSERT INTO "usage_priced" ("workspace_id", "hour", "prefix", "category", "billable", "free", "unpriced")
	SELECT d.workspace_id, d.hour, d.prefix, d.category, sum(d.billable), sum(d.free), sum(d.unpriced)
	FROM (
		SELECT n.workspace_id, date_trunc('hour', n.created_at, 'UTC') AS hour, left(n.recipient, 3) AS prefix, coalesce(n.pricing_category, 'unknown') AS category,
			(n.billable IS TRUE)::int AS billable, (n.billable IS FALSE)::int AS free, (n.billable IS NULL)::int AS unpriced
		FROM new_rows n WHERE n.wamid IS NOT NULL AND (n.pricing_category IS NOT NULL OR n.billable IS NOT NULL)
		UNION ALL
		SELECT o.workspace_id, date_trunc('hour', o.created_at, 'UTC'), left(o.recipient, 3), coalesce(o.pricing_category, 'unknown'),
			-(o.billable IS TRUE)::int, -(o.billable IS FALSE)::int, -(o.billable IS NULL)::int
		FROM old_rows o WHERE o.wamid IS NOT NULL AND (o.pricing_category IS NOT NULL OR o.billable IS NOT NULL)
	) d
	GROUP BY 1, 2, 3, 4 HAVING sum(d.billable) <> 0 OR sum(d.free) <> 0 OR sum(d.unpriced) <> 0 ORDER BY 1, 2, 3, 4
	ON CONFLICT ("workspace_id", "hour", "prefix", "category") DO UPDATE SET "billable" = "usage_priced"."billable" + excluded."billable",
		"free" = "usage_priced"."free" + excluded."free", "unpriced" = "usage_priced"."unpriced" + excluded."unpriced";
	RETURN NULL;
END
$$;

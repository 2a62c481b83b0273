-- GET /api/usage.php's counts (usage_sent, usage_priced: db/schema.ts), kept by three statement
-- triggers on messages made by migration 0017, one function a statement kind over its transition
-- tables. This one, messages_usage_inserts (AFTER INSERT, REFERENCING NEW TABLE AS new_rows): the
-- rows inserted with a wamid count under their key. Deltas are summed per key and written in key
-- order, so that two statements writing the same keys take their row locks in the same order.
-- Transition tables are seen only by the trigger's own function, hence three functions, not one
-- helper (usage_count_changes.sql).
CREATE OR REPLACE FUNCTION "usage_count_inserts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- a record is written before it is sent (no wamid): only one written with its wamid counts here
	IF NOT EXISTS (SELECT 1 FROM new_rows WHERE wamid IS NOT NULL) THEN RETURN NULL; END IF;
	INSERT INTO "usage_sent" ("workspace_id", "hour", "prefix", "messages")
	SELECT n.workspace_id, date_trunc('hour', n.created_at, 'UTC'), left(n.recipient, 3), count(*)
	FROM new_rows n WHERE n.wamid IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("workspace_id", "hour", "prefix") DO UPDATE SET "messages" = "usage_sent"."messages" + excluded."messages";
	INSERT INTO "usage_priced" ("workspace_id", "hour", "prefix", "category", "billable", "free", "unpriced")
	SELECT n.workspace_id, date_trunc('hour', n.created_at, 'UTC'), left(n.recipient, 3), coalesce(n.pricing_category, 'unknown'),
		count(*) FILTER (WHERE n.billable), count(*) FILTER (WHERE NOT n.billable), count(*) FILTER (WHERE n.billable IS NULL)
	FROM new_rows n WHERE n.wamid IS NOT NULL AND (n.pricing_category IS NOT NULL OR n.billable IS NOT NULL) GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
	ON CONFLICT ("workspace_id", "hour", "prefix", "category") DO UPDATE SET "billable" = "usage_priced"."billable" + excluded."billable",
		"free" = "usage_priced"."free" + excluded."free", "unpriced" = "usage_priced"."unpriced" + excluded."unpriced";
	RETURN NULL;
END
$$;

-- GET /api/usage.php's counts (usage_sent, usage_priced: db/schema.ts), kept by three statement
-- triggers on messages made by migration 0017. This one, messages_usage_deletes (AFTER DELETE,
-- REFERENCING OLD TABLE AS old_rows): the rows deleted with a wamid no longer count under their key
-- (the purge, an erasure). Written in key order, as usage_count_changes.sql says why.
CREATE OR REPLACE FUNCTION "usage_count_deletes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- a purge or an erasure (src/privacy/) changes no figure: its transaction says so, and the counts stay where they were
	IF current_setting('outbound.counts_kept', true) = 'on' THEN
		RETURN NULL;
	END IF;
	INSERT INTO "usage_sent" ("workspace_id", "hour", "prefix", "messages")
	SELECT o.workspace_id, date_trunc('hour', o.created_at, 'UTC'), left(o.recipient, 3), -count(*)
	FROM old_rows o WHERE o.wamid IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("workspace_id", "hour", "prefix") DO UPDATE SET "messages" = "usage_sent"."messages" + excluded."messages";
	INSERT INTO "usage_priced" ("workspace_id", "hour", "prefix", "category", "billable", "free", "unpriced")
	SELECT o.workspace_id, date_trunc('hour', o.created_at, 'UTC'), left(o.recipient, 3), coalesce(o.pricing_category, 'unknown'),
		-count(*) FILTER (WHERE o.billable), -count(*) FILTER (WHERE NOT o.billable), -count(*) FILTER (WHERE o.billable IS NULL)
	FROM old_rows o WHERE o.wamid IS NOT NULL AND (o.pricing_category IS NOT NULL OR o.billable IS NOT NULL) GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
	ON CONFLICT ("workspace_id", "hour", "prefix", "category") DO UPDATE SET "billable" = "usage_priced"."billable" + excluded."billable",
		"free" = "usage_priced"."free" + excluded."free", "unpriced" = "usage_priced"."unpriced" + excluded."unpriced";
	RETURN NULL;
END
$$;

-- GET /api/usage.php's counts kept as records change (CONTRACT.md 14), per workspace, UTC hour of
-- the record's created_at and the first three digits of its recipient (mapped to a country above
-- the store). Two tables, so that the send path and the status webhooks do not wait on the same
-- rows: usage_sent counts every record the upstream accepted (it has a wamid), which a send's
-- outcome writes; usage_priced counts, per pricing category, those a status webhook priced (their
-- category or billable known), which the webhooks write. What is not priced is the difference.
CREATE TABLE "usage_sent" (
	"workspace_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"prefix" text NOT NULL,
	"messages" integer NOT NULL,
	CONSTRAINT "usage_sent_pk" PRIMARY KEY ("workspace_id", "hour", "prefix")
);
--> statement-breakpoint
CREATE TABLE "usage_priced" (
	"workspace_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"prefix" text NOT NULL,
	"category" text NOT NULL,
	"billable" integer NOT NULL,
	"free" integer NOT NULL,
	"unpriced" integer NOT NULL,
	CONSTRAINT "usage_priced_pk" PRIMARY KEY ("workspace_id", "hour", "prefix", "category")
);
--> statement-breakpoint
-- One function per statement kind, run once per statement over the rows it changed (transition
-- tables): a record counts under its key as it stands after the statement and no longer under its
-- key before it, so a repeat that changes nothing moves nothing (a redelivered status), and a
-- change of category or of billable moves the record from one count to the other. The deltas are
-- summed per key and written in key order: two statements writing the same keys take their row
-- locks in the same order (no deadlock), and a statement that changes no count writes nothing.
CREATE FUNCTION "usage_count_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
--> statement-breakpoint
CREATE FUNCTION "usage_count_inserts"() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE FUNCTION "usage_count_deletes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
--> statement-breakpoint
CREATE TRIGGER "messages_usage_inserts" AFTER INSERT ON "messages" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "usage_count_inserts"();
--> statement-breakpoint
CREATE TRIGGER "messages_usage_changes" AFTER UPDATE ON "messages" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "usage_count_changes"();
--> statement-breakpoint
CREATE TRIGGER "messages_usage_deletes" AFTER DELETE ON "messages" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "usage_count_deletes"();
--> statement-breakpoint
-- The records already there, counted under the trigger's lock on messages (no write is missed or counted twice).
INSERT INTO "usage_sent" ("workspace_id", "hour", "prefix", "messages")
SELECT "workspace_id", date_trunc('hour', "created_at", 'UTC'), left("recipient", 3), count(*)
FROM "messages" WHERE "wamid" IS NOT NULL GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO "usage_priced" ("workspace_id", "hour", "prefix", "category", "billable", "free", "unpriced")
SELECT "workspace_id", date_trunc('hour', "created_at", 'UTC'), left("recipient", 3), coalesce("pricing_category", 'unknown'),
	count(*) FILTER (WHERE "billable"), count(*) FILTER (WHERE NOT "billable"), count(*) FILTER (WHERE "billable" IS NULL)
FROM "messages" WHERE "wamid" IS NOT NULL AND ("pricing_category" IS NOT NULL OR "billable" IS NOT NULL) GROUP BY 1, 2, 3, 4;

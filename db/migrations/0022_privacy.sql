-- Issue 37, privacy (CONTRACT.md 17): a workspace's retention and how far its sweep has purged;
-- when each kind of content was purged; erased records and opt-outs; the erasures themselves;
-- the new scope for the keys that had every scope; the usage counts left alone by a purge or an
-- erasure (db/functions/usage_count_changes.sql, usage_count_deletes.sql).
ALTER TABLE "workspaces" ADD COLUMN "retention_days" integer;
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "content_purged_through" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "content_purged_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "erased" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD COLUMN "content_purged_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "content_purged_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "media" ADD COLUMN "content_purged_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "suppressions" ADD COLUMN "erased" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD COLUMN "content_purged_at" timestamp with time zone;
--> statement-breakpoint
CREATE TABLE "erasures" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"status" text NOT NULL,
	"target" text,
	"counts" jsonb,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "erasures" ADD CONSTRAINT "erasures_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "erasures_workspace_requested" ON "erasures" USING btree ("workspace_id","requested_at","id");
--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "scopes" SET DEFAULT '["messages:send","messages:read","media:write","campaigns:write","campaigns:read","suppressions:write","usage:read","privacy:write"]'::jsonb;
--> statement-breakpoint
UPDATE "api_keys" SET "scopes" = "scopes" || '["privacy:write"]'::jsonb
WHERE "scopes" @> '["messages:send","messages:read","media:write","campaigns:write","campaigns:read","suppressions:write","usage:read"]'::jsonb
	AND NOT "scopes" @> '["privacy:write"]'::jsonb;
--> statement-breakpoint
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
--> statement-breakpoint
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

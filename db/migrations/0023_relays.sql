-- Issue 38, the relay (CONTRACT.md 18): a workspace's relay targets, and one delivery per target and
-- inbox delivery, created in the transaction that applies the inbox delivery. `body` holds the exact
-- bytes sent (Meta's, or the target's split of them); `inbox_delivery_id` is the inbox job they came
-- from (the privacy purge and erasure follow it).
CREATE TABLE "relay_targets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"url" text NOT NULL,
	"fields" jsonb,
	"phone_number_ids" jsonb,
	"signing" text DEFAULT 'app' NOT NULL,
	"secret" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "relay_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"relay_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"inbox_delivery_id" bigint NOT NULL,
	"body" bytea NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_response_status" integer,
	"last_error" text,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "relay_targets" ADD CONSTRAINT "relay_targets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "relay_deliveries" ADD CONSTRAINT "relay_deliveries_relay_id_relay_targets_id_fk" FOREIGN KEY ("relay_id") REFERENCES "public"."relay_targets"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "relay_targets_workspace" ON "relay_targets" USING btree ("workspace_id") WHERE removed_at is null;
--> statement-breakpoint
CREATE UNIQUE INDEX "relay_deliveries_relay_inbox_delivery" ON "relay_deliveries" USING btree ("relay_id","inbox_delivery_id");
--> statement-breakpoint
CREATE INDEX "relay_deliveries_workspace_created" ON "relay_deliveries" USING btree ("workspace_id","created_at");
--> statement-breakpoint
CREATE INDEX "relay_deliveries_relay_created" ON "relay_deliveries" USING btree ("relay_id","created_at");
--> statement-breakpoint
CREATE INDEX "relay_deliveries_inbox_delivery" ON "relay_deliveries" USING btree ("inbox_delivery_id");
--> statement-breakpoint
-- CONTRACT.md 23: a key made without --scopes has every scope, those added later included (a key
-- holding all of section 16's scopes is taken to be one)
UPDATE "api_keys" SET "scopes" = "scopes" || '["relays:write"]'::jsonb
WHERE "scopes" @> '["messages:send","messages:read","media:write","campaigns:write","campaigns:read","suppressions:write","usage:read"]'::jsonb
  AND NOT "scopes" @> '["relays:write"]'::jsonb;
--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "scopes" SET DEFAULT '["messages:send","messages:read","media:write","campaigns:write","campaigns:read","suppressions:write","usage:read","relays:write"]'::jsonb;

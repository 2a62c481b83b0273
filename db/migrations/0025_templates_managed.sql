-- Issue 40, templates managed from Outbound (CONTRACT.md 20): the catalog keeps the parameter format
-- and the rejection reason; Outbound counts its own edits of approved templates (1 a day, 10 in 30
-- days) and remembers the names it may not use again for 30 days after deleting an approved template.
ALTER TABLE "templates" ADD COLUMN "parameter_format" text;
--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "rejected_reason" text;
--> statement-breakpoint
CREATE TABLE "template_edits" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"waba_id" text NOT NULL,
	"upstream_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "template_edits_template_at" ON "template_edits" USING btree ("waba_id","upstream_id","at");
--> statement-breakpoint
CREATE TABLE "template_name_locks" (
	"waba_id" text NOT NULL,
	"name" text NOT NULL,
	"frees_at" timestamp with time zone NOT NULL,
	CONSTRAINT "template_name_locks_pkey" PRIMARY KEY("waba_id","name")
);
--> statement-breakpoint
-- A key made with every scope gets the new ones too (CONTRACT.md 23): its list holds all seven of section 16.
UPDATE "api_keys" SET "scopes" = "scopes" || '["templates:read","templates:write"]'::jsonb
WHERE "scopes" @> '["messages:send","messages:read","media:write","campaigns:write","campaigns:read","suppressions:write","usage:read"]'::jsonb
  AND NOT "scopes" @> '["templates:read"]'::jsonb;
--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "scopes" SET DEFAULT '["messages:send","messages:read","media:write","campaigns:write","campaigns:read","suppressions:write","usage:read","privacy:write","relays:write","templates:read","templates:write"]'::jsonb;

-- Issue 41, the quality guard (CONTRACT.md 21): why a campaign is paused, when a guard pause
-- resumes by itself (durable: a restart finds it here), since when its failure rate counts (a
-- person's resume starts a new window), and each number's quality signals.
ALTER TABLE "campaigns" ADD COLUMN "paused_reason" text;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "resume_after" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "guard_since" timestamp with time zone;
--> statement-breakpoint
UPDATE "campaigns" SET "paused_reason" = 'manual' WHERE "status" = 'paused';
--> statement-breakpoint
CREATE INDEX "campaigns_guard_resume" ON "campaigns" USING btree ("resume_after") WHERE "resume_after" is not null;
--> statement-breakpoint
CREATE TABLE "quality_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"phone_number_id" text NOT NULL,
	"rating" text,
	"event" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "quality_history_number_at" ON "quality_history" USING btree ("phone_number_id","at");

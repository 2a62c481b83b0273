ALTER TABLE "messages" ADD COLUMN "queued_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "sending_at" timestamp with time zone;--> statement-breakpoint
UPDATE "messages" SET "queued_at" = "created_at" WHERE "status" IN ('queued', 'sending');--> statement-breakpoint
UPDATE "messages" SET "sending_at" = "updated_at" WHERE "status" = 'sending';

ALTER TABLE "inbound_messages" ALTER COLUMN "from" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD COLUMN "from_user_id" text;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "quality" text;--> statement-breakpoint
CREATE TABLE "webhook_kept_aside" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" bigint,
	"kind" text NOT NULL,
	"reason" text NOT NULL,
	"field" text,
	"route_id" text,
	"codes" text,
	"event" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhook_kept_aside_created" ON "webhook_kept_aside" USING btree ("created_at");

ALTER TABLE "messages" ADD COLUMN "client_reference" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"workspace_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"message_id" text NOT NULL,
	"response_status" integer,
	"response_headers" jsonb,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_workspace_id_key_pk" PRIMARY KEY("workspace_id","key")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
DROP INDEX "messages_workspace_created";--> statement-breakpoint
DROP INDEX "messages_workspace_status_created";--> statement-breakpoint
CREATE INDEX "messages_workspace_created" ON "messages" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_workspace_status_created" ON "messages" USING btree ("workspace_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_workspace_recipient_created" ON "messages" USING btree ("workspace_id","recipient","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_workspace_client_reference_created" ON "messages" USING btree ("workspace_id","client_reference","created_at","id") WHERE client_reference is not null;

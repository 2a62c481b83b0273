CREATE TABLE "queue_drainers" (
	"phone_number_id" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "messages_pending_dispatcher";--> statement-breakpoint
CREATE INDEX "messages_pending_dispatcher" ON "messages" USING btree ("dispatcher_id") WHERE status in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "messages_queued" ON "messages" USING btree ("workspace_id","phone_number_id","created_at") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "inbound_messages_number_from_received" ON "inbound_messages" USING btree ("phone_number_id","from","received_at");

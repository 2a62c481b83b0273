CREATE TABLE "suppressions" (
	"id" text NOT NULL,
	"workspace_id" text NOT NULL REFERENCES "workspaces"("id"),
	"recipient" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppressions_workspace_id_recipient_pk" PRIMARY KEY("workspace_id","recipient")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_id" ON "suppressions" USING btree ("id");--> statement-breakpoint
CREATE INDEX "suppressions_workspace_created" ON "suppressions" USING btree ("workspace_id","created_at","recipient");--> statement-breakpoint
CREATE TABLE "cooldowns" (
	"workspace_id" text NOT NULL REFERENCES "workspaces"("id"),
	"recipient" text NOT NULL,
	"until" timestamp with time zone NOT NULL,
	CONSTRAINT "cooldowns_workspace_id_recipient_pk" PRIMARY KEY("workspace_id","recipient")
);
--> statement-breakpoint
CREATE TABLE "messaging_limit_recipients" (
	"waba_id" text NOT NULL,
	"recipient" text NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	CONSTRAINT "messaging_limit_recipients_waba_id_recipient_pk" PRIMARY KEY("waba_id","recipient")
);
--> statement-breakpoint
CREATE INDEX "messaging_limit_recipients_window" ON "messaging_limit_recipients" USING btree ("waba_id","last_at");--> statement-breakpoint
CREATE TABLE "template_resyncs" (
	"waba_id" text PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "held_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "held_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "pricing" jsonb;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "billable" boolean;--> statement-breakpoint
CREATE INDEX "messages_usage" ON "messages" USING btree ("workspace_id","created_at") INCLUDE ("pricing_category","billable","recipient") WHERE wamid is not null;

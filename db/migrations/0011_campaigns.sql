CREATE TABLE "campaigns" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"api_key_id" text,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"template" text NOT NULL,
	"language" text NOT NULL,
	"category" text,
	"phone_number_id" text NOT NULL,
	"send_at" timestamp with time zone NOT NULL,
	"accepted" integer NOT NULL,
	"rejected" integer NOT NULL,
	"skipped" integer NOT NULL,
	"rejections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"materialised" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "campaign_recipients" (
	"campaign_id" text NOT NULL,
	"n" integer NOT NULL,
	"recipient" text NOT NULL,
	"variables" jsonb,
	"client_reference" text,
	CONSTRAINT "campaign_recipients_campaign_id_n_pk" PRIMARY KEY("campaign_id","n")
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "campaigns_workspace_created" ON "campaigns" USING btree ("workspace_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "campaigns_live_number" ON "campaigns" USING btree ("phone_number_id","send_at") WHERE status in ('scheduled', 'running', 'waiting_for_limit');
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "campaign_id" text;
--> statement-breakpoint
CREATE INDEX "messages_campaign_status" ON "messages" USING btree ("campaign_id","status") WHERE campaign_id is not null;
--> statement-breakpoint
CREATE INDEX "messages_campaign_created" ON "messages" USING btree ("campaign_id","created_at","id") WHERE campaign_id is not null;

CREATE TABLE "media" (
	"workspace_id" text NOT NULL,
	"media_id" text NOT NULL,
	"origin" text NOT NULL,
	"phone_number_id" text NOT NULL,
	"inbound_message_id" text,
	"kind" text NOT NULL,
	"mime_type" text,
	"file_size" bigint,
	"sha256" text,
	"filename" text,
	"stored_at" timestamp with time zone,
	"mirror_error" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "media_workspace_id_media_id_pk" PRIMARY KEY("workspace_id","media_id")
);
--> statement-breakpoint
ALTER TABLE "media" ADD CONSTRAINT "media_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;

CREATE TABLE "user_id_links" (
	"workspace_id" text NOT NULL,
	"old_user_id" text NOT NULL,
	"new_user_id" text NOT NULL,
	"linked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_id_links_workspace_id_old_user_id_pk" PRIMARY KEY("workspace_id","old_user_id")
);
--> statement-breakpoint
ALTER TABLE "user_id_links" ADD CONSTRAINT "user_id_links_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "user_id_links_new" ON "user_id_links" USING btree ("workspace_id","new_user_id");
--> statement-breakpoint
CREATE INDEX "inbound_messages_number_from_user_id_received" ON "inbound_messages" USING btree ("phone_number_id","from_user_id","received_at") WHERE from_user_id is not null;

CREATE TABLE "jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"queue" text NOT NULL,
	"group_key" text,
	"payload" bytea NOT NULL,
	"status" text DEFAULT 'ready' NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "jobs_claimable" ON "jobs" USING btree ("queue","id") WHERE status <> 'dead';--> statement-breakpoint
CREATE INDEX "jobs_claimable_group" ON "jobs" USING btree ("queue","group_key","id") WHERE status <> 'dead' and group_key is not null;--> statement-breakpoint
CREATE INDEX "jobs_dead" ON "jobs" USING btree ("queue","created_at") WHERE status = 'dead';

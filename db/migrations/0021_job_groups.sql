-- Issue 36, one runner: a number's queued sends and campaign messages are a group mode of the
-- runner (src/work/groups.ts), whose group leases replace the drain's own (queue_drainers). A
-- lease is short-lived: the holders of the old table's leases take the new ones at their next poll.
CREATE TABLE "job_groups" (
	"name" text NOT NULL,
	"group_key" text NOT NULL,
	"holder" text NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "job_groups_name_group_key_pk" PRIMARY KEY("name","group_key")
);
--> statement-breakpoint
DROP TABLE "queue_drainers";

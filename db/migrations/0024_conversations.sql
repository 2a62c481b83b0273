-- Issue 39, conversations (CONTRACT.md 19): when an inbound message was read, the workspace's
-- read-receipt policy, and one row per conversation (workspace, number, person) kept by triggers
-- in the transaction of each message written, so the list of conversations never scans messages.
ALTER TABLE "inbound_messages" ADD COLUMN "read_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "read_receipts" text DEFAULT 'manual' NOT NULL;
--> statement-breakpoint
CREATE TABLE "conversations" (
	"workspace_id" text NOT NULL,
	"phone_number_id" text NOT NULL,
	"person" text NOT NULL,
	"to" text,
	"recipient_user_id" text,
	"last_inbound_at" timestamp with time zone,
	"last_outbound_at" timestamp with time zone,
	"last_at" timestamp with time zone NOT NULL,
	"unread" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "conversations_pk" PRIMARY KEY ("workspace_id", "phone_number_id", "person")
);
--> statement-breakpoint
-- the list, most recently active first, paged by (last_at, phone_number_id, person)
CREATE INDEX "conversations_workspace_last" ON "conversations" USING btree ("workspace_id", "last_at", "phone_number_id", "person");
--> statement-breakpoint
-- a thread's inbound side, by phone number or by user id, paged by (received_at, id)
CREATE INDEX "inbound_messages_workspace_from_received" ON "inbound_messages" USING btree ("workspace_id", "from", "received_at", "id") WHERE "from" is not null;
--> statement-breakpoint
CREATE INDEX "inbound_messages_workspace_user_id_received" ON "inbound_messages" USING btree ("workspace_id", "from_user_id", "received_at", "id") WHERE "from_user_id" is not null;
--> statement-breakpoint
-- a person's unread messages to a number: what a read mark (and on_reply) finds
CREATE INDEX "inbound_messages_unread" ON "inbound_messages" USING btree ("workspace_id", "phone_number_id", (coalesce("from", "from_user_id")), "received_at") WHERE "read_at" is null;
--> statement-breakpoint
-- a thread's outbound side by person and number (messages_workspace_recipient_created serves it across numbers)
CREATE INDEX "messages_workspace_number_recipient_created" ON "messages" USING btree ("workspace_id", "phone_number_id", "recipient", "created_at", "id");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "conversation_outbound"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "conversations" ("workspace_id", "phone_number_id", "person", "to", "recipient_user_id", "last_outbound_at", "last_at")
	SELECT n.workspace_id, n.phone_number_id, n.recipient,
		CASE WHEN n.recipient ~ '^[A-Z]{2}\.' THEN NULL ELSE n.recipient END,
		CASE WHEN n.recipient ~ '^[A-Z]{2}\.' THEN n.recipient ELSE NULL END,
		max(n.created_at), max(n.created_at)
	FROM new_rows n GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("workspace_id", "phone_number_id", "person") DO UPDATE SET
		"last_outbound_at" = greatest("conversations"."last_outbound_at", excluded."last_outbound_at"),
		"last_at" = greatest("conversations"."last_at", excluded."last_at");
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "conversation_inbound"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "conversations" ("workspace_id", "phone_number_id", "person", "to", "recipient_user_id", "last_inbound_at", "last_at", "unread")
	SELECT n.workspace_id, n.phone_number_id, coalesce(n."from", n.from_user_id), max(n."from"), max(n.from_user_id),
		max(n.received_at), max(n.received_at), count(*) FILTER (WHERE n.read_at IS NULL)
	FROM new_rows n WHERE coalesce(n."from", n.from_user_id) IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("workspace_id", "phone_number_id", "person") DO UPDATE SET
		"recipient_user_id" = coalesce(excluded."recipient_user_id", "conversations"."recipient_user_id"),
		"last_inbound_at" = greatest("conversations"."last_inbound_at", excluded."last_inbound_at"),
		"last_at" = greatest("conversations"."last_at", excluded."last_at"),
		"unread" = "conversations"."unread" + excluded."unread";
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "conversation_reads"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "conversations" c SET "unread" = greatest(c."unread" - d.n, 0)
	FROM (
		SELECT n.workspace_id, n.phone_number_id, coalesce(n."from", n.from_user_id) AS person, count(*) AS n
		FROM new_rows n JOIN old_rows o ON o.id = n.id
		WHERE o.read_at IS NULL AND n.read_at IS NOT NULL
		GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	) d
	WHERE c.workspace_id = d.workspace_id AND c.phone_number_id = d.phone_number_id AND c.person = d.person;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "messages_conversations" AFTER INSERT ON "messages" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "conversation_outbound"();
--> statement-breakpoint
CREATE TRIGGER "inbound_messages_conversations" AFTER INSERT ON "inbound_messages" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "conversation_inbound"();
--> statement-breakpoint
CREATE TRIGGER "inbound_messages_conversation_reads" AFTER UPDATE ON "inbound_messages" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "conversation_reads"();
--> statement-breakpoint
-- The conversations already there, under the triggers' locks (no write is missed or counted twice);
-- messages received before read receipts existed count as read.
UPDATE "inbound_messages" SET "read_at" = "received_at";
--> statement-breakpoint
INSERT INTO "conversations" ("workspace_id", "phone_number_id", "person", "to", "recipient_user_id", "last_outbound_at", "last_at")
SELECT "workspace_id", "phone_number_id", "recipient",
	CASE WHEN "recipient" ~ '^[A-Z]{2}\.' THEN NULL ELSE "recipient" END, CASE WHEN "recipient" ~ '^[A-Z]{2}\.' THEN "recipient" ELSE NULL END,
	max("created_at"), max("created_at")
FROM "messages" GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO "conversations" ("workspace_id", "phone_number_id", "person", "to", "recipient_user_id", "last_inbound_at", "last_at")
SELECT "workspace_id", "phone_number_id", coalesce("from", "from_user_id"), max("from"), max("from_user_id"), max("received_at"), max("received_at")
FROM "inbound_messages" WHERE coalesce("from", "from_user_id") IS NOT NULL GROUP BY 1, 2, 3
ON CONFLICT ("workspace_id", "phone_number_id", "person") DO UPDATE SET
	"recipient_user_id" = coalesce(excluded."recipient_user_id", "conversations"."recipient_user_id"),
	"last_inbound_at" = excluded."last_inbound_at",
	"last_at" = greatest("conversations"."last_at", excluded."last_at");

-- Written by `npm run db:functions` from the sources of the functions that changed (CONTRIBUTING.md, "The database"):
-- edit the source in db/functions/ and generate a new migration, never this file.
-- source: db/functions/conversation_outbound.sql
-- GET /api/conversations.php's list (CONTRACT.md 19) reads one row per (workspace, number, person)
-- instead of scanning messages: `conversations` (db/schema.ts), kept by statement triggers made by
-- migration 0024. This one, messages_conversations (AFTER INSERT ON messages, REFERENCING NEW TABLE
-- AS new_rows): every record written (sent now, queued, a campaign's) moves its conversation's
-- last_outbound_at. `person` is the record's `recipient` as it is (a phone number's digits or a
-- business-scoped user id: src/resources/recipient.ts). Rows are written in key order, so two
-- statements touching the same conversations lock them in the same order (no deadlock). A record
-- with no recipient (an erased person's campaign row made into its message, CONTRACT.md 17) has none.
CREATE OR REPLACE FUNCTION "conversation_outbound"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "conversations" ("workspace_id", "phone_number_id", "person", "to", "recipient_user_id", "last_outbound_at", "last_at")
	SELECT n.workspace_id, n.phone_number_id, n.recipient,
		CASE WHEN n.recipient ~ '^[A-Z]{2}\.' THEN NULL ELSE n.recipient END,
		CASE WHEN n.recipient ~ '^[A-Z]{2}\.' THEN n.recipient ELSE NULL END,
		max(n.created_at), max(n.created_at)
	FROM new_rows n WHERE n.recipient <> '' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
	ON CONFLICT ("workspace_id", "phone_number_id", "person") DO UPDATE SET
		"last_outbound_at" = greatest("conversations"."last_outbound_at", excluded."last_outbound_at"),
		"last_at" = greatest("conversations"."last_at", excluded."last_at");
	RETURN NULL;
END
$$;

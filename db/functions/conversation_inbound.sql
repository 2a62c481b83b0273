-- The conversations' rows (conversation_outbound.sql) as inbound messages arrive: trigger
-- inbound_messages_conversations (AFTER INSERT ON inbound_messages, REFERENCING NEW TABLE AS
-- new_rows). The person is the sender's number, else its business-scoped user id; a message that
-- carries both fills in the user id of its sender's conversation. Each unread message counts in
-- `unread`; conversation_reads.sql takes it off when it is read.
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

-- The conversations' unread counts (conversation_inbound.sql) as messages are read: trigger
-- inbound_messages_conversation_reads (AFTER UPDATE ON inbound_messages, REFERENCING OLD TABLE AS
-- old_rows NEW TABLE AS new_rows). A message whose read_at went from null to a time counts off its
-- conversation's `unread`, in key order; a statement that reads nothing new writes nothing.
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

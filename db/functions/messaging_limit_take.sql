-- The slot of a send whose log record exists already (a queued send's drain, a keyed send, the
-- dashboard: src/store/messaging-limit.ts): messaging_limit_claim in a statement of its own, whose
-- commit does not wait for its WAL flush (the record's commit, before the upstream, flushes it).
CREATE OR REPLACE FUNCTION "messaging_limit_take"("p_waba" text, "p_recipient" text, "p_limit" integer, "p_free" boolean)
RETURNS TABLE ("taken" boolean, "counted_at" text, "next_slot_at" timestamp with time zone) LANGUAGE plpgsql AS $$
BEGIN
	-- a reply in the recipient's service window is free
	IF p_free THEN
		RETURN QUERY SELECT true, NULL::text, NULL::timestamp with time zone;
		RETURN;
	END IF;
	-- No wait for this commit's WAL flush: the send's log record commits (synchronously) before
	-- anything goes upstream, and that flush covers this earlier WAL too. A crash before it loses
	-- the slot of a send that never went out. It keeps the WABA's row lock short (no fsync under it).
	PERFORM set_config('synchronous_commit', 'off', true);
	RETURN QUERY SELECT * FROM "messaging_limit_claim"(p_waba, p_recipient, p_limit, false);
END
$$;

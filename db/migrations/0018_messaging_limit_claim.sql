-- The messaging limit's slot taken by the statement that writes the send's log record (issue 26):
-- messaging_limit_claim is messaging_limit_take's body, without its asynchronous commit (the
-- record's insert commits synchronously, and it is this statement's commit). A send's record and
-- its slot are then one statement and one commit: both or neither. messaging_limit_take keeps its
-- own statement for the sends whose record exists already (a queued send's drain, the dashboard).
CREATE FUNCTION "messaging_limit_claim"("p_waba" text, "p_recipient" text, "p_limit" integer, "p_free" boolean)
RETURNS TABLE ("taken" boolean, "counted_at" text, "next_slot_at" timestamp with time zone) LANGUAGE plpgsql AS $$
DECLARE
	v_used integer;
	v_last timestamp with time zone;
	v_gone integer;
	v_oldest timestamp with time zone;
BEGIN
	-- a reply in the recipient's service window is free
	IF p_free THEN
		RETURN QUERY SELECT true, NULL::text, NULL::timestamp with time zone;
		RETURN;
	END IF;
	-- counted already in the window: costs nothing, their time moves on (no lock)
	UPDATE "messaging_limit_recipients" SET "last_at" = now() WHERE "waba_id" = p_waba AND "recipient" = p_recipient AND "last_at" > now() - interval '24 hours';
	IF FOUND THEN
		RETURN QUERY SELECT true, NULL::text, NULL::timestamp with time zone;
		RETURN;
	END IF;
	-- the WABA's count row is the lock: two processes taking the last slot take turns
	SELECT "used" INTO v_used FROM "messaging_limit_counts" WHERE "waba_id" = p_waba FOR UPDATE;
	IF NOT FOUND THEN
		INSERT INTO "messaging_limit_counts" ("waba_id", "used") VALUES (p_waba, 0) ON CONFLICT DO NOTHING;
		SELECT "used" INTO v_used FROM "messaging_limit_counts" WHERE "waba_id" = p_waba FOR UPDATE;
	END IF;
	-- statements after the lock see every slot taken before it; "used" counts every row, expired ones too
	SELECT "last_at" INTO v_last FROM "messaging_limit_recipients" WHERE "waba_id" = p_waba AND "recipient" = p_recipient;
	IF v_last IS NOT NULL AND v_last > now() - interval '24 hours' THEN
		UPDATE "messaging_limit_recipients" SET "last_at" = now() WHERE "waba_id" = p_waba AND "recipient" = p_recipient;
		RETURN QUERY SELECT true, NULL::text, NULL::timestamp with time zone;
		RETURN;
	END IF;
	IF p_limit IS NOT NULL AND v_used + (CASE WHEN v_last IS NULL THEN 1 ELSE 0 END) > p_limit THEN
		-- full by the count: the rows out of the window go, then the count is exact
		DELETE FROM "messaging_limit_recipients" WHERE "waba_id" = p_waba AND "last_at" <= now() - interval '24 hours';
		GET DIAGNOSTICS v_gone = ROW_COUNT;
		v_used := v_used - v_gone;
		v_last := NULL;
		IF v_gone > 0 THEN
			UPDATE "messaging_limit_counts" SET "used" = v_used WHERE "waba_id" = p_waba;
		END IF;
		IF v_used + 1 > p_limit THEN
			SELECT min("last_at") INTO v_oldest FROM "messaging_limit_recipients" WHERE "waba_id" = p_waba;
			RETURN QUERY SELECT false, NULL::text, coalesce(v_oldest, now()) + interval '24 hours';
			RETURN;
		END IF;
	END IF;
	INSERT INTO "messaging_limit_recipients" ("waba_id", "recipient", "last_at") VALUES (p_waba, p_recipient, now())
		ON CONFLICT ("waba_id", "recipient") DO UPDATE SET "last_at" = now();
	IF v_last IS NULL THEN
		UPDATE "messaging_limit_counts" SET "used" = v_used + 1 WHERE "waba_id" = p_waba;
	END IF;
	RETURN QUERY SELECT true, now()::text, NULL::timestamp with time zone;
END
$$;--> statement-breakpoint
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

-- The messaging limit's slot (CONTRACT.md 14), taken in the statement that writes the send's log
-- record (src/store/messages.ts, INSERT_CLAIMING): a send's record and its slot are one statement and
-- one commit, both or neither. The WABA's row of messaging_limit_counts is both the count checked and
-- the lock; messaging_limit_recipients holds each recipient's latest counted send. The first
-- statement's window is written so that only the primary key can serve it, whatever plan plpgsql
-- caches (migration 0019, tests/audience/claim-plan.test.ts). docs/decisions/029-audience-rules.md.
CREATE OR REPLACE FUNCTION "messaging_limit_claim"("p_waba" text, "p_recipient" text, "p_limit" integer, "p_free" boolean)
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
	-- counted already in the window: costs nothing, their time moves on (no lock). The window is
	-- written `last_at + 24 h > now()`, which no index can serve, so that the primary key (both
	-- columns equal) is this statement's only plan: written `last_at > now() - 24 h`, the cached
	-- generic plan made while the table was small could take messaging_limit_recipients_window
	-- (waba_id, last_at) and read the WABA's whole window for every claim (migration 0019).
	UPDATE "messaging_limit_recipients" SET "last_at" = now() WHERE "waba_id" = p_waba AND "recipient" = p_recipient AND "last_at" + interval '24 hours' > now();
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
$$;

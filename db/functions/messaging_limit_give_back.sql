-- The slot of a send that never went out frees again (src/store/messaging-limit.ts, giveBack): the
-- recipient's row goes only if it is still the one that send wrote, and the WABA's count with it.
CREATE OR REPLACE FUNCTION "messaging_limit_give_back"("p_waba" text, "p_recipient" text, "p_at" timestamp with time zone) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM "messaging_limit_counts" WHERE "waba_id" = p_waba FOR UPDATE;
	-- only the slot this send took: a later send to the recipient moved last_at on and keeps it
	DELETE FROM "messaging_limit_recipients" WHERE "waba_id" = p_waba AND "recipient" = p_recipient AND "last_at" = p_at;
	IF FOUND THEN
		UPDATE "messaging_limit_counts" SET "used" = "used" - 1 WHERE "waba_id" = p_waba;
	END IF;
END
$$;

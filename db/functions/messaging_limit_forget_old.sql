-- Rows out of every window go, each WABA's count with them, under the count row's lock
-- (src/store/messaging-limit.ts, forgetOld: hourly, with the tier refresh).
CREATE OR REPLACE FUNCTION "messaging_limit_forget_old"() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	v_waba text;
	v_gone integer;
BEGIN
	FOR v_waba IN SELECT "waba_id" FROM "messaging_limit_counts" LOOP
		PERFORM 1 FROM "messaging_limit_counts" WHERE "waba_id" = v_waba FOR UPDATE;
		DELETE FROM "messaging_limit_recipients" WHERE "waba_id" = v_waba AND "last_at" <= now() - interval '24 hours';
		GET DIAGNOSTICS v_gone = ROW_COUNT;
		IF v_gone > 0 THEN
			UPDATE "messaging_limit_counts" SET "used" = "used" - v_gone WHERE "waba_id" = v_waba;
		END IF;
	END LOOP;
END
$$;

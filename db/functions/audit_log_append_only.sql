-- The audit log is append-only (docs/decisions/020-audit-log.md): its triggers
-- audit_log_no_update_or_delete (each row) and audit_log_no_truncate (each statement), made by
-- migration 0010, refuse any other change.
CREATE OR REPLACE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

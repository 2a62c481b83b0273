CREATE TABLE "webhook_delivery_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"delivery_id" text NOT NULL REFERENCES "webhook_deliveries"("id"),
	"number" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"response_status" integer,
	"error" text,
	"outcome" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhook_delivery_attempts_delivery" ON "webhook_delivery_attempts" USING btree ("delivery_id","id");

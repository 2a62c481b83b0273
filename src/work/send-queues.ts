/** The job queue of queued sends: one job per record, grouped by sending number, the record's id as payload. */
export const QUEUED_SENDS = 'queued-sends'

/** The job queue of campaign messages: one job per message record, grouped by sending number, the record's id as payload. */
export const CAMPAIGN_SENDS = 'campaign-sends'

/** The queues whose jobs are message records: a hold released wakes its job in either. */
export const SEND_QUEUES: readonly string[] = [QUEUED_SENDS, CAMPAIGN_SENDS]

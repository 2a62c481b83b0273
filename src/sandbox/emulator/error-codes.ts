interface CodeInfo { title: string, http: number, details?: string }

// Titles and HTTP statuses as the upstream answers them; throttling codes come back as 400 in practice.
export const ERROR_CODES: Record<number, CodeInfo> = {
  1: { title: 'An unknown error occurred', http: 400 },
  2: { title: 'Service temporarily unavailable', http: 503, details: 'Service temporarily unavailable' },
  3: { title: 'Application does not have the capability to make this API call.', http: 500 },
  4: { title: 'Application request limit reached', http: 400, details: 'Application request limit reached' },
  10: { title: 'Permission denied', http: 403 },
  33: { title: 'Parameter value is not valid', http: 400 },
  100: { title: 'Invalid parameter', http: 400 },
  190: { title: 'Error validating access token', http: 401 },
  368: { title: 'Temporarily blocked for policies violations', http: 403 },
  2200: { title: 'Callback verification failed', http: 400 },
  2500: { title: 'Unknown path components', http: 400 },
  80007: { title: 'Rate limit issues', http: 400, details: 'The WhatsApp Business Account has reached its rate limit.' },
  130429: { title: 'Rate limit hit', http: 400, details: 'Cloud API message throughput has been reached.' },
  130472: { title: "User's number is part of an experiment", http: 400 },
  131000: { title: 'Something went wrong', http: 500, details: 'Something went wrong' },
  131005: { title: 'Access denied', http: 403 },
  131008: { title: 'Required parameter is missing', http: 400 },
  131009: { title: 'Parameter value is not valid', http: 400 },
  131016: { title: 'Service unavailable', http: 503, details: 'A service is temporarily unavailable.' },
  131021: { title: 'Recipient cannot be sender', http: 400 },
  131026: { title: 'Message undeliverable', http: 400, details: 'Message Undeliverable.' },
  131030: { title: 'Recipient phone number not in allowed list', http: 400 },
  131031: { title: 'Account has been locked', http: 403 },
  131042: { title: 'Business eligibility payment issue', http: 400 },
  131047: {
    title: 'Re-engagement message',
    http: 400,
    details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.'
  },
  131048: { title: 'Spam rate limit hit', http: 400 },
  131049: { title: 'This message was not delivered to maintain healthy ecosystem engagement.', http: 400 },
  131050: { title: 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.', http: 400 },
  131051: { title: 'Unsupported message type', http: 400 },
  131053: { title: 'Media upload error', http: 400 },
  131056: {
    title: '(Business Account, Consumer Account) pair rate limit hit',
    http: 400,
    details: 'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.'
  },
  131057: { title: 'Account in maintenance mode', http: 500, details: 'Business Account is in maintenance mode' },
  132000: { title: 'Number of parameters does not match the expected number of params', http: 400 },
  132001: { title: 'Template name does not exist in the translation', http: 400 },
  132005: { title: 'Translated text too long', http: 400 },
  132007: { title: 'Template Format Character Policy Violated', http: 400 },
  132012: { title: 'Parameter format does not match format in the created template', http: 400 },
  132015: { title: 'Template is Paused', http: 400 },
  132016: { title: 'Template is Disabled', http: 400 },
  133010: { title: 'Account not registered', http: 400 },
  135000: { title: 'Generic user error', http: 400 }
}

export function codeInfo (code: number): CodeInfo {
  return ERROR_CODES[code] ?? { title: 'An unknown error occurred', http: 400 }
}

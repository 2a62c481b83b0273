import { embeddedBackend } from './backends.js'
import { describeRoundTrip } from './round-trip.js'

describeRoundTrip('on embedded PGlite in a temporary DATA_DIR', embeddedBackend)

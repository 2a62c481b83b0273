import { embeddedStore } from '../pacer/server-process.js'
import { describeCrashWithKey } from './crash.js'

describeCrashWithKey('embedded PGlite in a temporary DATA_DIR', embeddedStore)

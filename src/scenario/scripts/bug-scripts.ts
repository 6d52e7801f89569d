/** The bug-zoo scripts (one per `scenarios/bug-<n>.json`), for the script registry. */
import type { ScriptDef } from "./script.js";
import { bug335 } from "./bug-335.js";
import { bug1208 } from "./bug-1208.js";
import { bug1419 } from "./bug-1419.js";
import { bug1549 } from "./bug-1549.js";
import { bug2355 } from "./bug-2355.js";
import { bug3642 } from "./bug-3642.js";
import { bug3911 } from "./bug-3911.js";
import { bug4394 } from "./bug-4394.js";
import { bug4643 } from "./bug-4643.js";
import { bug4646 } from "./bug-4646.js";
import { bug4685 } from "./bug-4685.js";
import { bug4712 } from "./bug-4712.js";
import { bug4785 } from "./bug-4785.js";

export const BUG_SCRIPTS: readonly ScriptDef[] = [bug335, bug1208, bug1419, bug1549, bug2355, bug3642, bug3911, bug4394, bug4643, bug4646, bug4685, bug4712, bug4785];

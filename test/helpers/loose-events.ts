/**
 * Trace events as a test writes them by hand or inspects them: any kind name, fields as an open
 * record. Tests build events the schema forbids on purpose (the malformed-event cases, a checker
 * fed a kind it never reads) and read runs' events without narrowing each by kind. `asEvent`
 * hands such an event to code typed over the schema, as a trace file read back would: its kind
 * and fields are unchecked until a reader checks them (which is what those tests test).
 */
import type { TraceEvent } from "../../src/sim/trace.js";

export interface LooseEvent {
  index: number;
  atUs: number;
  kind: string;
  node: string;
  peer?: string;
  id?: number;
  detail?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever a kind holds
  fields?: Record<string, any>;
  conn?: number;
}

/** A hand-built event, as the schema's union (unchecked: the code under test checks it). */
export function asEvent(e: LooseEvent): TraceEvent {
  return e as TraceEvent;
}

export function asEvents(es: readonly LooseEvent[]): TraceEvent[] {
  return es.map(asEvent);
}

/** A run's event, to inspect its fields without narrowing by kind. */
export function loose(e: TraceEvent): LooseEvent {
  return e as LooseEvent;
}

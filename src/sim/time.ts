/**
 * Virtual time. The kernel's one unit is the integer **microsecond** (`…Us`); protocol code
 * configured in milliseconds (`tickTimeMs`, `sessionTimeoutMs`) converts at the edge with
 * `msToUs`. Time only moves when the scheduler takes the next event.
 */
export const US_PER_MS = 1000;

export function msToUs(ms: number): number {
  return Math.round(ms * US_PER_MS);
}

export function usToMs(us: number): number {
  return us / US_PER_MS;
}

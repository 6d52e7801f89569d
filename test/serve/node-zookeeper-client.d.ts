// The few names of the npm package `node-zookeeper-client` (plain JavaScript, no types of its own)
// that test/serve/npm-client.test.ts uses.
declare module "node-zookeeper-client" {
  interface Stat {
    version: number;
  }
  interface WatcherEvent {
    getType(): number;
    getName(): string;
    getPath(): string;
  }
  interface Client {
    connect(): void;
    close(): void;
    once(event: "connected" | "disconnected" | "expired", listener: () => void): void;
    on(event: "connected" | "disconnected" | "expired", listener: () => void): void;
    getSessionId(): Buffer;
    create(path: string, data: Buffer | null, mode: number, callback: (error: Error | null, path: string) => void): void;
    getData(path: string, watcher: ((event: WatcherEvent) => void) | null, callback: (error: Error | null, data: Buffer, stat: Stat) => void): void;
    setData(path: string, data: Buffer, version: number, callback: (error: Error | null, stat: Stat) => void): void;
    getChildren(path: string, callback: (error: Error | null, children: string[]) => void): void;
    exists(path: string, callback: (error: Error | null, stat: Stat | null) => void): void;
  }
  const zookeeper: {
    createClient(connectString: string, options?: { sessionTimeout?: number; spinDelay?: number; retries?: number }): Client;
    CreateMode: { PERSISTENT: number; EPHEMERAL: number; PERSISTENT_SEQUENTIAL: number; EPHEMERAL_SEQUENTIAL: number };
    Event: { NODE_DATA_CHANGED: number; NODE_DELETED: number };
  };
  export default zookeeper;
}

import { Duplex } from "node:stream";
import type { MessagePort } from "node:worker_threads";

/**
 * The part of `net.Socket` a pg client uses, over a MessagePort to the embedded database's thread. pg writes
 * each protocol message of a query separately (parse, bind, describe, execute, sync); they are sent as one
 * port message at the end of the tick, so the database thread sees the whole sequence at once.
 */
export class PortSocket extends Duplex {
  private port?: MessagePort;
  private outgoing: Buffer[] = [];
  private flushScheduled = false;
  private referenced = true;

  constructor(private readonly openPort: () => Promise<MessagePort>) {
    super();
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  /** Like a socket's: an unreferenced idle connection does not keep the process alive (pg's allowExitOnIdle). */
  ref(): this {
    this.referenced = true;
    this.port?.ref();
    return this;
  }

  unref(): this {
    this.referenced = false;
    this.port?.unref();
    return this;
  }

  connect(): this {
    this.openPort().then(
      (port) => {
        if (this.destroyed) {
          port.close();
          return;
        }
        this.port = port;
        port.on("message", (data: Uint8Array) =>
          this.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
        );
        port.on("close", () => {
          this.push(null);
          this.destroy();
        });
        if (!this.referenced) port.unref();
        this.emit("connect");
        this.flush();
      },
      (error: Error) => this.destroy(error),
    );
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.outgoing.push(chunk);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(() => this.flush());
    }
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flush();
    this.port?.close();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.port?.close();
    callback(error);
  }

  private flush(): void {
    this.flushScheduled = false;
    if (!this.port || this.outgoing.length === 0) return;
    const bytes = this.outgoing.length === 1 ? this.outgoing[0]! : Buffer.concat(this.outgoing);
    this.outgoing = [];
    this.port.postMessage(bytes);
  }
}

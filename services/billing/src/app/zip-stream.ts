import { createHash } from 'node:crypto';
import { Zip, ZipDeflate } from 'fflate';

/**
 * A zip written as it goes (fflate): entries are added and filled chunk by chunk, and the bytes
 * produced so far are taken with `drain()`, so an export holds one page of data at a time. The
 * SHA-256 and size of everything drained are kept for the export's record.
 */
export class ZipStream {
  private readonly out: Uint8Array[] = [];
  private readonly zip: Zip;
  private readonly hash = createHash('sha256');
  private entry: ZipDeflate | null = null;
  bytes = 0;

  constructor(private readonly mtime: Date) {
    this.zip = new Zip((err, data) => {
      if (err) throw err;
      this.out.push(data);
    });
  }

  /** Starts an entry (ending the one before). */
  open(name: string): void {
    this.close();
    const entry = new ZipDeflate(name, { level: 6 });
    entry.mtime = this.mtime;
    this.zip.add(entry);
    this.entry = entry;
  }

  write(bytes: Uint8Array): void {
    if (!this.entry) throw new Error('no zip entry open');
    if (bytes.length > 0) this.entry.push(bytes, false);
  }

  /** Ends the open entry, if any. */
  close(): void {
    if (this.entry) this.entry.push(new Uint8Array(0), true);
    this.entry = null;
  }

  /** Ends the zip (the central directory follows). */
  end(): void {
    this.close();
    this.zip.end();
  }

  /** The bytes produced since the last drain, as one buffer (null when none). */
  drain(): Buffer | null {
    if (this.out.length === 0) return null;
    const chunk = Buffer.concat(this.out.splice(0));
    this.hash.update(chunk);
    this.bytes += chunk.length;
    return chunk;
  }

  /** SHA-256 (hex) of every byte drained; call after the last drain. */
  digest(): string {
    return this.hash.digest('hex');
  }
}

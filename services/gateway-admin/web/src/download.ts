import { useState } from 'react';
import { downloadFile } from './api';

/** What a screen shows of its download: the name it was started with, the bytes received so far, its failure. */
export interface DownloadState {
  name: string;
  bytes: number;
  error: unknown;
}

/**
 * A download of the Admin API started from a screen: busy while it runs, the bytes received so far
 * under the name it was started with (the path when none is given), its failure kept to be shown.
 */
export function useFileDownload() {
  const [state, setState] = useState<DownloadState | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (path: string, init: Parameters<typeof downloadFile>[1], name: string = path) => {
    setBusy(true);
    setState({ name, bytes: 0, error: null });
    try {
      await downloadFile(path, { ...init, onBytes: (bytes) => setState({ name, bytes, error: null }) });
    } catch (error) {
      setState((s) => ({ name, bytes: s?.bytes ?? 0, error }));
    } finally {
      setBusy(false);
    }
  };
  return { state, error: state?.error ?? null, busy, run };
}

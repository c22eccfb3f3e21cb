import { useState } from 'react';
import { ApiError, downloadFile } from './api';

/** A download of the Admin API started from a screen: busy while it runs, its failure kept to be shown. */
export function useFileDownload() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (path: string, init: Parameters<typeof downloadFile>[1]) => {
    setBusy(true);
    setError(null);
    try {
      await downloadFile(path, init);
    } catch (err) {
      setError(err instanceof ApiError ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

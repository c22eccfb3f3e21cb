import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMember } from './ui';

/** How often a job's record is read again while it runs (its progress bar shows). */
const POLL_MS = 500;

/**
 * A job's record read under [organization, ...key] and read again every half second while `active`
 * holds for its status (or for no record yet). Once the job ended (its record is in and no longer
 * active) the organization's reads under `refresh` are read again, all of them when it is left out:
 * they show what the job wrote.
 */
export function usePolledJob<R extends { status: string }>({
  key,
  read,
  active,
  refresh,
}: {
  key: readonly unknown[];
  read: () => Promise<R>;
  active: (status: R['status'] | undefined) => boolean;
  refresh?: string;
}) {
  const { organization } = useMember();
  const queries = useQueryClient();
  const job = useQuery({
    queryKey: [organization.id, ...key],
    queryFn: read,
    refetchInterval: (q) => (active(q.state.data?.status) ? POLL_MS : false),
  });
  const record = job.data;
  const ended = record !== undefined && !active(record.status);
  useEffect(() => {
    if (ended)
      void queries.invalidateQueries({
        queryKey: refresh === undefined ? [organization.id] : [organization.id, refresh],
      });
  }, [ended, queries, organization.id, refresh]);
  return { job, record, ended };
}

import type { ReactNode } from 'react';

/**
 * The box a job's or a download's progress shows in (test id `testId`, its `data-*` attributes as
 * given): the labelled bar (`<testId>-bar`; without `max` and `value` it runs with no known end),
 * then `children` (the outcome, once there is one).
 */
export function ProgressBox({
  testId,
  label,
  max,
  value,
  children,
  ...data
}: {
  testId: string;
  label: ReactNode;
  max?: number | undefined;
  value?: number | undefined;
  children?: ReactNode;
} & { [attribute: `data-${string}`]: string | number }) {
  const bar = `${testId}-bar`;
  return (
    <div className="export-progress" data-testid={testId} {...data}>
      <label htmlFor={bar}>{label}</label>
      <progress id={bar} max={max} value={value} />
      {children}
    </div>
  );
}

import type { ReactNode } from 'react';

type ProgressBoxProps = {
  testId: string;
  label: ReactNode;
  max?: number | undefined;
  value?: number | undefined;
  children?: ReactNode;
} & { [attribute: `data-${string}`]: string | number };

/**
 * The box a job's or a download's progress shows in (test id `testId`, its `data-*` attributes as
 * given): the labelled bar (`<testId>-bar`; without `max` and `value` it runs with no known end),
 * then `children` (the outcome, once there is one).
 */
export function ProgressBox({ testId, label, max, value, children, ...data }: ProgressBoxProps) {
  const bar = `${testId}-bar`;
  return (
    <div className="export-progress" data-testid={testId} {...data}>
      <label htmlFor={bar}>{label}</label>
      <progress id={bar} max={max} value={value} />
      {children}
    </div>
  );
}

/**
 * The {@link ProgressBox} of a job the screen follows: its status as `data-status`, the bar's
 * label that status in words (`statusText`), then " · " and how far it got (`detail`).
 */
export function JobProgressBox({
  status,
  statusText,
  detail,
  ...box
}: Omit<ProgressBoxProps, 'label'> & { status: string; statusText: string; detail: ReactNode }) {
  return (
    <ProgressBox
      data-status={status}
      label={
        <>
          {statusText} · {detail}
        </>
      }
      {...box}
    />
  );
}

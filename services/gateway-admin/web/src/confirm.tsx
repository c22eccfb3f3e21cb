import { useState, type ReactNode } from 'react';
import { TextField, type Attempt } from './forms';
import { useI18n } from './i18n';
import { ErrorNote, Section, useOrgMutation } from './ui';

/**
 * A warning that asks before a write: the question (`<questionId>`, naming the dialog), what the
 * question needs beside it, the confirm button (left out when there is nothing to confirm) and the
 * way back, then the error of the last try.
 */
export function ConfirmDialog({
  questionId,
  question,
  questionTestId,
  children,
  confirm,
  back,
  attempt,
}: {
  questionId: string;
  question: ReactNode;
  questionTestId?: string | undefined;
  children?: ReactNode;
  confirm: { id: string; label: string; onClick: () => void; disabled?: boolean | undefined } | null;
  back: { label: string; onClick: () => void };
  attempt: Attempt;
}) {
  return (
    <div role="alertdialog" aria-labelledby={questionId} className="notice warning">
      <p id={questionId} data-testid={questionTestId}>
        {question}
      </p>
      {children}
      <div className="row-actions">
        {confirm && (
          <button type="button" id={confirm.id} onClick={confirm.onClick} disabled={confirm.disabled}>
            {confirm.label}
          </button>
        )}
        <button type="button" className="secondary" onClick={back.onClick}>
          {back.label}
        </button>
      </div>
      {attempt.error ? <ErrorNote error={attempt.error} /> : null}
    </div>
  );
}

/**
 * A section with one button for a write that asks first, with an optional reason (`<prefix>-reason`,
 * sent trimmed and only when given): `<id>-button` opens the question `<prefix>-q`, `<prefix>-confirm`
 * runs the write and refreshes the organization's reads under `refresh`.
 */
export function ConfirmAction({
  id,
  prefix,
  title,
  question,
  questionTestId,
  reasonLabel,
  reasonHint,
  reasonMax,
  confirmLabel,
  run,
  refresh,
}: {
  id: string;
  prefix: string;
  title: string;
  question: string;
  questionTestId?: string;
  reasonLabel: string;
  /** The line under the reason, from the characters left. */
  reasonHint?: (left: number) => string;
  reasonMax: number;
  confirmLabel: string;
  run: (body: { reason?: string }) => Promise<unknown>;
  refresh: readonly unknown[];
}) {
  const { t } = useI18n();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const write = useOrgMutation(() => run(reason.trim() ? { reason: reason.trim() } : {}), refresh);
  return (
    <Section title={title} id={id}>
      {!asking ? (
        <button type="button" id={`${id}-button`} onClick={() => setAsking(true)}>
          {title}
        </button>
      ) : (
        <ConfirmDialog
          questionId={`${prefix}-q`}
          question={question}
          questionTestId={questionTestId}
          confirm={{
            id: `${prefix}-confirm`,
            label: confirmLabel,
            onClick: () => write.mutate(undefined),
            disabled: write.isPending,
          }}
          back={{ label: t('clients.cancel'), onClick: () => setAsking(false) }}
          attempt={write}
        >
          <TextField
            id={`${prefix}-reason`}
            label={reasonLabel}
            hint={reasonHint?.(reasonMax - reason.trim().length)}
            value={reason}
            onChange={setReason}
            maxLength={reasonMax}
          />
        </ConfirmDialog>
      )}
    </Section>
  );
}

import { useState, type ComponentProps, type FormEvent, type ReactNode } from 'react';
import { useI18n } from './i18n';
import { ErrorNote, useSites } from './ui';

/**
 * A form's values in one state, as `useState` holds them, with `set(key)`: the setter of one field
 * (what a field's `onChange` takes).
 */
export function useFields<T extends object>(initial: T | (() => T)) {
  const [values, setValues] = useState<T>(initial);
  const set =
    <K extends keyof T>(key: K) =>
    (value: T[K]) =>
      setValues((prev) => ({ ...prev, [key]: value }));
  return [values, set, setValues] as const;
}

interface FieldProps {
  id: string;
  label: string;
  /** A line under the control, announced with it. */
  hint?: string | undefined;
  children: (describedBy: string | undefined) => ReactNode;
  /** The class of the field's box in a form's grid (`wide`: a whole row). */
  className?: string;
}

/** A labelled control with an optional hint (aria-describedby). */
export function Field({ id, label, hint, children, className }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={className}>
      <label htmlFor={id}>{label}</label>
      {children(hintId)}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

interface TextProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'email' | 'url' | 'number' | 'date';
  required?: boolean;
  hint?: string | undefined;
  maxLength?: number | undefined;
  minLength?: number | undefined;
  pattern?: string;
  placeholder?: string;
  min?: number;
  max?: number;
  /** Credentials, secrets and host names: no spelling help, no autofill. */
  plain?: boolean;
}

export function TextField({ id, label, value, onChange, hint, plain, type = 'text', ...rest }: TextProps) {
  return (
    <Field id={id} label={label} hint={hint}>
      {(describedBy) => (
        <input
          id={id}
          type={type}
          value={value}
          aria-describedby={describedBy}
          onChange={(e) => onChange(e.target.value)}
          {...(plain ? { autoComplete: 'off', spellCheck: false, autoCapitalize: 'off' } : {})}
          {...rest}
        />
      )}
    </Field>
  );
}

interface CheckProps {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** A radio button of the group `name` instead of a checkbox. */
  radio?: { name: string };
}

/** A checkbox (or radio button) with its label after it, as the choices of a fieldset stand. */
export function Check({ id, label, checked, onChange, radio }: CheckProps) {
  return (
    <span className="check">
      <input
        id={id}
        type={radio ? 'radio' : 'checkbox'}
        name={radio?.name}
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id}>{label}</label>
    </span>
  );
}

/** A labelled checkbox in a form's grid. */
export function CheckField(props: Omit<CheckProps, 'radio'>) {
  return (
    <div>
      <Check {...props} />
    </div>
  );
}

interface SelectProps<T extends string> {
  id: string;
  label: string;
  value: T;
  options: ReadonlyArray<readonly [T, string]>;
  onChange: (value: T) => void;
  hint?: string | undefined;
}

export function SelectField<T extends string>({ id, label, value, options, onChange, hint }: SelectProps<T>) {
  return (
    <Field id={id} label={label} hint={hint}>
      {(describedBy) => (
        <select
          id={id}
          value={value}
          aria-describedby={describedBy}
          onChange={(e) => {
            const next = options.find(([v]) => v === e.target.value);
            if (next) onChange(next[0]);
          }}
        >
          {options.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The write a form runs (a mutation): in flight, and the error of its last try. */
export interface Attempt {
  isPending: boolean;
  error: unknown;
}

/** A write whose input the form's fields keep in the screen's state: the submit runs it as it is. */
export interface Write extends Attempt {
  mutate: (input: undefined) => void;
}

type FormProps = {
  /** The accessible name of the form. */
  label: string;
  submit: string;
  children: ReactNode;
  id?: string;
} & (
  | {
      onSubmit: () => void;
      /** The write the submit starts; none when the form only moves on (a review step). */
      attempt?: Attempt;
      write?: never;
    }
  | {
      /** The write the submit runs, and whose error the form shows. */
      write: Write;
      onSubmit?: never;
      attempt?: never;
    }
);

/** A grid form with its submit button and the error of its write's last try. */
export function GridForm({ label, submit, onSubmit, attempt, write, children, id }: FormProps) {
  const run = attempt ?? write;
  const handle = (e: FormEvent) => {
    e.preventDefault();
    if (write) write.mutate(undefined);
    else onSubmit?.();
  };
  return (
    <>
      <form className="grid-form" aria-label={label} onSubmit={handle} id={id}>
        {children}
        <div className="actions">
          <button type="submit" disabled={run?.isPending ?? false}>
            {submit}
          </button>
        </div>
      </form>
      {run?.error ? <ErrorNote error={run.error} /> : null}
    </>
  );
}

export function CopyButton({ text, label }: { text: string; label?: string }) {
  const { t } = useI18n();
  const [done, setDone] = useState(false);
  return (
    <>
      <SecondaryButton onClick={() => void navigator.clipboard.writeText(text).then(() => setDone(true))}>
        {label ?? t('settings.copy')}
      </SecondaryButton>{' '}
      {done && <span role="status">{t('checkouts.copied')}</span>}
    </>
  );
}

/** A secret (new key, new signing secret, enrollment link) shown once, with a copy button. */
export function ShownOnce({ message, value, testId }: { message: string; value: string; testId: string }) {
  return (
    <div role="status" className="notice warning">
      <p>{message}</p>
      <p>
        <code data-testid={testId}>{value}</code> <CopyButton text={value} />
      </p>
    </div>
  );
}

interface DateRange {
  startDate?: string | undefined;
  endDate?: string | undefined;
}

/** The from / to days of a list's filters (`<prefix>-from`, `<prefix>-to`); an empty field is no bound. */
export function DateRangeFields({
  idPrefix,
  value,
  onChange,
  required,
}: {
  idPrefix: string;
  value: DateRange;
  onChange: (range: DateRange) => void;
  /** Both days must be given (a report's range, not a filter). */
  required?: boolean;
}) {
  const { t } = useI18n();
  const field = (key: keyof DateRange, suffix: string, label: string) => (
    <div>
      <label htmlFor={`${idPrefix}-${suffix}`}>{label}</label>
      <input
        id={`${idPrefix}-${suffix}`}
        type="date"
        required={required}
        value={value[key] ?? ''}
        onChange={(e) => onChange({ ...value, [key]: e.target.value || undefined })}
      />
    </div>
  );
  return (
    <>
      {field('startDate', 'from', t('payments.from'))}
      {field('endDate', 'to', t('payments.to'))}
    </>
  );
}

/** A search box (a list's filter, or a search before a choice), its hint as the placeholder. */
export function SearchField({
  id,
  label,
  value,
  placeholder,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  onChange: (value: string) => void;
}) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** A list filter's choice with a first "any" option (the empty value: no filter). */
export function FilterSelect<T extends string | number>({
  id,
  label,
  anyLabel,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  anyLabel: string;
  value: T | undefined;
  options: ReadonlyArray<readonly [T, string]> | undefined;
  onChange: (value: T | undefined) => void;
}) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value ?? ''}
        onChange={(e) => onChange(options?.find(([v]) => String(v) === e.target.value)?.[0])}
      >
        <option value="">{anyLabel}</option>
        {options?.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The organization's sites as a list filter (`All sites` first). */
export function SiteFilter({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string | undefined;
  onChange: (siteId: string | undefined) => void;
}) {
  const { t } = useI18n();
  const sites = useSites();
  return (
    <FilterSelect
      id={id}
      label={t('overview.site')}
      anyLabel={t('overview.allSites')}
      value={value}
      options={sites.data?.items.map((s): readonly [string, string] => [s.id, s.name])}
      onChange={onChange}
    />
  );
}

/** A button beside the main action (a row's action, a copy, a second choice): never submits a form. */
export function SecondaryButton(props: Omit<ComponentProps<'button'>, 'type' | 'className'>) {
  return <button type="button" className="secondary" {...props} />;
}

/** A secondary button that runs `write` with `input`, disabled while the write is in flight. */
export function WriteButton<V>({
  write,
  input,
  ...props
}: { write: { isPending: boolean; mutate: (input: V) => void }; input: V } & Omit<
  ComponentProps<'button'>,
  'type' | 'className' | 'onClick' | 'disabled'
>) {
  return <SecondaryButton {...props} disabled={write.isPending} onClick={() => write.mutate(input)} />;
}

/** A year (a number between `range`), required. */
export function YearField({
  id,
  label,
  range: [min, max],
  value,
  onChange,
}: {
  id: string;
  label: string;
  range: readonly [number, number];
  value: string;
  onChange: (year: string) => void;
}) {
  return (
    <TextField id={id} label={label} type="number" min={min} max={max} required value={value} onChange={onChange} />
  );
}

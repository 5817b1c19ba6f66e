// The list of guides past its first page draws as its first page does.
export { default } from './guides.tsx'

import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with jobs-upload (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  ticket: {
    summary: 'An upload ticket',
    response: {
      uploadId: 'c502d112-307b-4bac-bcd2-10ff4655f04d',
      uploadUrl: 'https://netintel-jobpipelinebucket4f1b2c3d-x8k2m9q1w7ze.s3.eu-west-1.amazonaws.com/',
      method: 'POST',
      fields: {
        bucket: 'netintel-jobpipelinebucket4f1b2c3d-x8k2m9q1w7ze',
        'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
        'X-Amz-Credential': 'ASIAZ7PQ4RXKJ3M2LH5D/20261124/eu-west-1/s3/aws4_request',
        'X-Amz-Date': '20261124T163340Z',
        'X-Amz-Security-Token':
          'IQoJb3JpZ2luX2VjE9gmSTIDe7es/Sbx0s2gMTxADCFx/Xc7p3bub1a7CAYdL6ZUeF/TAdXZlYIfM2qm2456DHvqI+LHSs6JKMrPvFvnwjNQXRa0mYBUeQCpxhjPy/deIwMOp32Nn62UiiyLlYG717g9nZzgJ0mfWtbyrTebW5WeiTraaV0KeYO+VCht1bNRfz3K69vIiaB97K/xoK7hzxFSUQbLRuGxmC86f3k5Vj4VYwel7iysIq5RbWeW2aLKfXw9rIiU2yxUxRDmsoLdkzoHnO8bUiGZPsdC7q6UcVMIKI/P40LH0Po6nA35O/IS8cX8tCv0+ex6UehfSqsYnXC5DZ0OyNQWIHY6Xy6PFEpeZYl0VfIxlCE8mEhkpefBA7CV1hoAHIviAqFtyc3Mt0c1RzgdjEsFv',
        key: 'uploads/landing/acct_f9beff0a750447c89c39/c502d112-307b-4bac-bcd2-10ff4655f04d.csv',
        Policy:
          'eyJleHBpcmF0aW9uIjoiMjAyNi0xMS0yNFQxNjo0ODo0MFoiLCJjb25kaXRpb25zIjpbWyJjb250ZW50LWxlbmd0aC1yYW5nZSIsMCwxMDQ4NTc2MF0seyJidWNrZXQiOiJuZXRpbnRlbC1qb2JwaXBlbGluZWJ1Y2tldDRmMWIyYzNkLXg4azJtOXExdzd6ZSJ9LHsiWC1BbXotQWxnb3JpdGhtIjoiQVdTNC1ITUFDLVNIQTI1NiJ9LHsiWC1BbXotQ3JlZGVudGlhbCI6IkFTSUFaN1BRNFJYS0ozTTJMSDVELzIwMjYxMTI0L2V1LXdlc3QtMS9zMy9hd3M0X3JlcXVlc3QifSx7IlgtQW16LURhdGUiOiIyMDI2MTEyNFQxNjMzNDBaIn0seyJYLUFtei1TZWN1cml0eS1Ub2tlbiI6IklRb0piM0pwWjJsdVgyVmpFOWdtU1RJRGU3ZXMvU2J4MHMyZ01UeEFEQ0Z4L1hjN3AzYnViMWE3Q0FZZEw2WlVlRi9UQWRYWmxZSWZNMnFtMjQ1NkRIdnFJK0xIU3M2SktNclB2RnZud2pOUVhSYTBtWUJVZVFDcHhoalB5L2RlSXdNT3AzMk5uNjJVaWl5TGxZRzcxN2c5blp6Z0owbWZXdGJ5clRlYlc1V2VpVHJhYVYwS2VZTytWQ2h0MWJOUmZ6M0s2OXZJaWFCOTdLL3hvSzdoenhGU1VRYkxSdUd4bUM4NmYzazVWajRWWXdlbDdpeXNJcTVSYldlVzJhTEtmWHc5cklpVTJ5eFV4UkRtc29MZGt6b0huTzhiVWlHWlBzZEM3cTZVY1ZNSUtJL1A0MExIMFBvNm5BMzVPL0lTOGNYOHRDdjArZXg2VWVoZlNxc1luWEM1RFowT3lOUVdJSFk2WHk2UEZFcGVaWWwwVmZJeGxDRThtRWhrcGVmQkE3Q1YxaG9BSEl2aUFxRnR5YzNNdDBjMVJ6Z2RqRXNGdiJ9LHsia2V5IjoidXBsb2Fkcy9sYW5kaW5nL2FjY3RfZjliZWZmMGE3NTA0NDdjODljMzkvYzUwMmQxMTItMzA3Yi00YmFjLWJjZDItMTBmZjQ2NTVmMDRkLmNzdiJ9XX0=',
        'X-Amz-Signature': '67e3f7aeab5c234990bbf5cdf091ba67a7c9c61ffdec76cdbf8097d13a8151fc',
      },
      maxBytes: 10485760,
      expiresAt: '2026-11-24T16:48:40.512Z',
    },
  },
};

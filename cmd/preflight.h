/*
 * cmd/preflight.h: the cmd_table entry of `gpuform preflight`, kept next
 * to its code (cmd/preflight.c) so cmd/main.c only lists it.
 */
#ifndef CMD_PREFLIGHT_H
#define CMD_PREFLIGHT_H

#include "cmd/cmd.h"

int cmd_preflight(int argc, char **argv);

/*
 * preflight_gate: `reconcile --preflight` — the Kubernetes version from the
 * cluster (GET /version), then the checks of every intent file; findings
 * on stderr. mem, when not NULL, holds the files' contents (read from a
 * Git commit; paths are then their names in the repository); cluster, when
 * not NULL, is the cluster reconciled: an intent of another cluster is an
 * error. Returns EXIT_OK to go on, EXIT_INVALID when a finding is an error
 * (nothing may be applied), EXIT_RUNTIME when it could not check.
 */
struct kube;
struct buf;
int preflight_gate(struct kube *k, char **paths, const struct buf *mem,
		   size_t n, const char *cluster);
extern const struct cmd_opt preflight_opts[];

#define PREFLIGHT_CMD                                                         \
	{ "preflight", cmd_preflight,                                         \
	  "check an intent against the AWS account before it merges",        \
	  "[-o text|json|sarif] [--region REGION] "                           \
	  "[--kubernetes-version X.Y | --kubeconfig PATH] INTENT...",         \
	  "Check that what each intent refers to exists in the AWS account:\n" \
	  "the AMI release for the cluster's Kubernetes version (SSM\n"       \
	  "GetParameter on the parameters Karpenter resolves the alias\n"     \
	  "with), the image-cache snapshot (completed, not larger than the\n"  \
	  "volume; EC2 DescribeSnapshots), the EFA security group's\n"         \
	  "self-referencing all-traffic rules (DescribeSecurityGroups), the\n" \
	  "subnets and security groups with the discovery tag\n"               \
	  "(DescribeSubnets, DescribeSecurityGroups), an admitted instance\n"  \
	  "type of each GPU pool offered in those subnets' zones\n"            \
	  "(DescribeInstanceTypeOfferings), the capacity reservations and\n"   \
	  "Capacity Blocks a workload names (DescribeCapacityReservations:\n"  \
	  "active or scheduled, not ended, type, zone, size) and Karpenter's\n" \
	  "interruption queue (SQS GetQueueUrl). Each finding is\n"            \
	  "file:line:col: severity: message [PF00N rule-name].\n"              \
	  "\n"                                                                  \
	  "Requests are signed with AWS Signature Version 4. Credentials\n"    \
	  "are found as the AWS SDKs find them: the environment, the shared\n" \
	  "config and credentials files (AWS_PROFILE), web identity\n"         \
	  "(AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN), container\n"          \
	  "credentials (EKS Pod Identity) and IMDSv2. AWS_ENDPOINT_URL and\n"  \
	  "AWS_ENDPOINT_URL_<SERVICE> override the endpoints. A missing\n"     \
	  "permission is a warning 'could not check X: needs\n"                \
	  "service:Action', never an intent error. See docs/preflight.md.\n",  \
	  preflight_opts, NULL,                                                 \
	  "Exit: 0 no error-severity finding (warnings allowed), 1 findings "  \
	  "at error severity, 2 usage, 3 invalid intent, 4 cannot check (no " \
	  "credentials or region, an endpoint that timed out or failed, "     \
	  "rejected credentials, a malformed answer).",                        \
	  "@file", 0 }

#endif

/*
 * cmd/init.c: `gpuform init FILE` writes a small, commented intent that
 * validates and renders as it is: one cluster, one GPU class, one workload
 * per --workload. Non-interactive; refuses to overwrite FILE; the file
 * appears whole or not at all (written to a temporary file in the same
 * directory, then link(2)ed to FILE, which fails if FILE exists).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"

const struct cmd_opt init_opts[] = {
	{ "name", 'n', 'n', CMD_ARG_REQUIRED, "CLUSTER",
	  "the EKS cluster name (metadata.name; default my-cluster)", NULL, 0 },
	{ "gpu", 'g', 'g', CMD_ARG_REQUIRED, "CLASS",
	  "the GPU class of every workload (default l4; gpuform explain gpu)",
	  NULL, 0 },
	{ "workload", 'w', 'w', CMD_ARG_REQUIRED, "NAME:TYPE",
	  "a workload; TYPE is training, inference or dev; repeatable "
	  "(default api:inference)", NULL, 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

static int valid_type(const char *t)
{
	return !strcmp(t, "training") || !strcmp(t, "inference") ||
	       !strcmp(t, "dev");
}

int cmd_init(int argc, char **argv)
{
	const char *name = "my-cluster", *gpu = "l4";
	const char *wl[32];
	size_t nwl = 0;
	struct buf b = BUF_INIT, tmp = BUF_INIT;
	int c, fd, ret = EXIT_OK;
	FILE *f;

	while ((c = cmd_getopt("init", argc, argv)) != -1) {
		switch (c) {
		case 'h':
			return cmd_print_help("init");
		case 'n':
			name = optarg;
			break;
		case 'g':
			gpu = optarg;
			break;
		case 'w': {
			const char *colon = strchr(optarg, ':');
			if (!colon || colon == optarg || !valid_type(colon + 1))
				return cmd_usage_error(
					"init", "--workload wants NAME:TYPE "
						"(TYPE training, inference or "
						"dev), not '%s'", optarg);
			if (nwl == sizeof(wl) / sizeof(wl[0]))
				return cmd_usage_error("init",
						       "at most 32 workloads");
			wl[nwl++] = optarg;
			break;
		}
		default:
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("init", "name the file to write, e.g. "
					       "clusters/%s.yaml", name);
	buf_addf(&b,
		 "# A gpuform intent (docs/intent.md); check it with 'gpuform validate',\n"
		 "# see what it renders with 'gpuform render'. Written by 'gpuform init'.\n"
		 "# yaml-language-server: $schema=gpuform-intent.schema.json\n"
		 "apiVersion: gpuform.io/v1alpha1\n"
		 "kind: ClusterIntent\n"
		 "metadata:\n"
		 "  name: %s          # the EKS cluster name\n"
		 "spec:\n"
		 "  # the IAM role Karpenter's nodes run as\n"
		 "  nodeRole: KarpenterNodeRole-%s\n"
		 "  # AMI family and pinned release (gpuform explain ami)\n"
		 "  ami: al2023@v20250505\n"
		 "  # when node-replacing changes may disrupt interruption: none pools\n"
		 "  maintenanceWindow:\n"
		 "    schedule: \"0 3 * * *\"\n"
		 "    duration: 2h\n"
		 "  workloads:\n", name, name);
	if (nwl == 0)
		wl[nwl++] = "api:inference";
	for (size_t i = 0; i < nwl; i++) {
		const char *colon = strchr(wl[i], ':');
		buf_addf(&b,
			 "    - name: %.*s\n"
			 "      type: %s      # training, inference or dev\n"
			 "      gpu: %s             # GPU class, or a list of classes\n"
			 "      maxGpus: 8          # the most GPUs it may hold\n",
			 (int)(colon - wl[i]), wl[i], colon + 1, gpu);
	}
	if (access(argv[optind], F_OK) == 0) {
		fprintf(stderr, "gpuform init: %s exists; not overwriting it "
				"(remove it or name another file)\n",
			argv[optind]);
		buf_release(&b);
		return EXIT_RUNTIME;
	}
	buf_addf(&tmp, "%s.gpuform-tmp-XXXXXX", argv[optind]);
	fd = mkstemp((char *)buf_cstr(&tmp));
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "gpuform init: %s: %s\n", argv[optind],
			strerror(errno));
		if (fd >= 0)
			close(fd);
		buf_release(&b);
		buf_release(&tmp);
		return EXIT_RUNTIME;
	}
	if (fputs(buf_cstr(&b), f) == EOF || fflush(f) || fsync(fileno(f)) ||
	    fclose(f)) {
		fprintf(stderr, "gpuform init: %s: %s\n", argv[optind],
			strerror(errno));
		ret = EXIT_RUNTIME;
	} else if (link(buf_cstr(&tmp), argv[optind]) < 0) {
		fprintf(stderr, "gpuform init: %s: %s%s\n", argv[optind],
			strerror(errno),
			errno == EEXIST ? "; not overwriting it" : "");
		ret = EXIT_RUNTIME;
	} else {
		fprintf(stderr, "gpuform init: wrote %s; next: gpuform validate %s\n",
			argv[optind], argv[optind]);
	}
	unlink(buf_cstr(&tmp));
	buf_release(&b);
	buf_release(&tmp);
	return ret;
}

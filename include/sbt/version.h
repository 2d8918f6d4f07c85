/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The release: `sbt-bpf --version`, and the INFO section of every trace
 * file (sbt_version). */
#ifndef SBT_VERSION_H
#define SBT_VERSION_H

#define SBT_VERSION "0.1.0"

#endif

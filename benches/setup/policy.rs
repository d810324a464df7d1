//! The policy benchmarks' corpora: megabytes of realistic prose with some violations, in ASCII
//! and in text that is not (accented Latin, CJK, emoji) with the same violations.

/// Sentences an agent might write; most comply, some break a rule of the decision profile.
pub(crate) const COMPLIANT: &[&str] = &[
    "The onboarding flow was reviewed with the support team and the main friction points were listed.",
    "Customers reported that exporting reports takes several steps and is hard to find in the menu.",
    "A phased rollout keeps the risk low and lets the team learn from the first group of accounts.",
    "The proposal focuses on the scheduling module, where most of the manual work happens today.",
    "Moderate investment [AI estimation based on team size and integration scope] is expected.",
    "Strong ROI potential [AI estimation based on efficiency gains] follows from fewer manual steps.",
    "Interviews with six account managers confirmed the pattern [Source: interviews_q3.md].",
    "The integration reuses the existing identity provider, so no new credentials are needed.",
    "Training material can be adapted from the current help centre articles with light edits.",
    "Each stage ends with a review where the team decides whether to continue or adjust the plan.",
    "Latency during peak hours remains the most visible problem for the largest customers.",
    "The data team can provide weekly extracts, which is enough for the first evaluation period.",
];

/// Compliant sentences that are not ASCII: accented Latin, CJK, emoji, and mixes of them.
pub(crate) const COMPLIANT_NON_ASCII: &[&str] = &[
    "L'équipe a revu le parcours d'intégration avec le support ; les points de friction sont listés.",
    "Les clients signalent que l'export des rapports demande plusieurs étapes, difficiles à trouver.",
    "Ein schrittweiser Rollout hält das Risiko gering und lässt das Team aus der ersten Gruppe lernen.",
    "Der Vorschlag konzentriert sich auf das Planungsmodul, wo heute die meiste Handarbeit anfällt.",
    "导入流程已与支持团队一起审查，主要的摩擦点已经列出。",
    "客户反映导出报告需要好几个步骤，而且在菜单里很难找到。",
    "段階的な展開によりリスクを抑え、最初の顧客グループから学ぶことができます。",
    "統合は既存の認証基盤を再利用するため、新しい資格情報は不要です。",
    "Le déploiement progressif 🚀 réduit le risque ✅ et l'équipe apprend vite 📈.",
    "Chaque étape se termine par une revue 🔍 où l'équipe décide de continuer ou d'ajuster le plan 🗓️.",
    "La latence aux heures de pointe ⏱️ reste le problème le plus visible pour les grands comptes 🏢.",
    "数据团队可以提供每周的数据摘录 📊，这对第一个评估阶段已经足够 👍。",
];

/// Sentences that each break a rule of the decision profile.
pub(crate) const VIOLATING: &[&str] = &[
    "This will save $50,000 annually once the new workflow is in place.",
    "We expect a 30% reduction in handling time across all regions.",
    "The vendor claims \"zero downtime during migration\" for the new platform.",
    "Results are guaranteed within the first quarter of operation.",
    "Roughly 40 engineers would be involved in the migration.",
    "The change brings a 3x improvement in report generation speed.",
    "The new cache is 50% faster than the current one.",
    "It costs $120,000 to license the platform for a year.",
    "The rollout takes 6 weeks from kickoff to the last region.",
];

/// A deterministic corpus of about `bytes` bytes of ASCII prose: paragraphs of compliant
/// sentences with a violating one in about one sentence out of fifteen.
pub(crate) fn corpus(bytes: usize) -> String {
    corpus_of(COMPLIANT, bytes)
}

/// The same as [`corpus`], with compliant sentences that are not ASCII and the same violations.
pub(crate) fn non_ascii_corpus(bytes: usize) -> String {
    corpus_of(COMPLIANT_NON_ASCII, bytes)
}

fn corpus_of(compliant: &[&str], bytes: usize) -> String {
    // A small linear congruential generator: the same corpus on every run and machine.
    let mut state: u64 = 0x5eed_1234_abcd_0042;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(state >> 33).unwrap_or_default() % bound
    };
    let mut text = String::with_capacity(bytes + 256);
    while text.len() < bytes {
        for _ in 0..4 + next(4) {
            let sentence = if next(15) == 0 {
                VIOLATING[next(VIOLATING.len())]
            } else {
                compliant[next(compliant.len())]
            };
            text.push_str(sentence);
            text.push(' ');
        }
        text.push_str("\n\n");
    }
    text
}
